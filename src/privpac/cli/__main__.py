"""``python -m privpac.cli``: the ``privpac`` command."""

from . import main

main()
