"""Office documents with LibreOffice, kept warm: the engine (libreoffice), its filter matrix (formats),
the pool of long-running soffice processes (pool) and the UNO helper each one is driven by
(uno_bridge, run under the system Python). May import the engines folder's shared modules."""
