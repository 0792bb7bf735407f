"""Tests of the llmlat Python binding (run: python3 -m unittest, or pytest)."""
