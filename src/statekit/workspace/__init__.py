"""Local workspace machines: find machine files below a root and read them, never escaping it."""
