"""``python -m privpac.cli``: the ``privpac`` command."""

from . import main

if __name__ == "__main__":  # importing the module (pkgutil.walk_packages) runs nothing
    main()
