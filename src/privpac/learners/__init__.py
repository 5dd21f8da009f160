"""Private learners: each one a function over public parameters and private data."""
