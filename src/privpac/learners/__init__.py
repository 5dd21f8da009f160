"""Private learners: each module holds one algorithm; import from the module."""
