"""Local stand-in servers that speak the real services' wire formats."""
