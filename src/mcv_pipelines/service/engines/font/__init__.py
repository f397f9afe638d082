"""Fonts with fontTools (no program): ttf, otf, woff and woff2 to each other, outlines converted
between TrueType (quadratic) and CFF (cubic) when the container asks for the other kind. May import
the engines folder's shared modules."""
