"""Office documents with LibreOffice headless. May import the engines folder's shared modules."""
