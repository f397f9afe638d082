"""Vector graphics: SVG with librsvg (rsvg-convert), PostScript, EPS and Illustrator files with
Ghostscript (-dSAFER), raster images traced to SVG with Potrace, PDF pages to SVG/EPS/PS with Poppler's
pdftocairo. Each program sees its input alone in a scratch directory, so an SVG naming ``file:`` or
sibling resources finds nothing to load. May import the engines folder's shared modules and pdf/
(pdftocairo's input is checked as a PDF first)."""
