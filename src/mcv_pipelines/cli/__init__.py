"""The `mcv` command line: one module per command group; each only parses and wires."""
