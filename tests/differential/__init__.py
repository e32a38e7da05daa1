"""Generated differential tests: every op the shim binds, against real torch (see README.md here)."""
