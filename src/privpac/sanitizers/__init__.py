"""Sanitizers: private synthetic databases that answer a class of counting queries."""
