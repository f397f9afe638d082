"""Vector graphics: SVG with librsvg (rsvg-convert), PostScript, EPS and Illustrator files with
Ghostscript (-dSAFER), raster images traced to SVG, SVGZ, DXF, GeoJSON and XFig with Potrace, PDF pages
to SVG/SVGZ/EPS/PS with Poppler's pdftocairo; PostScript, EPS, AI and PDF to DXF, HPGL, XFig, EMF and PIC
with pstoedit, XFig drawings read by fig2dev and HPGL plots by hp2xx (issue 47). svgz.py compresses an
engine's SVG (mupdf in pages/ uses it too). Each program sees its input alone in a scratch directory,
so an SVG naming ``file:`` or sibling resources finds nothing to load. May import the engines folder's
shared modules and pdf/ (pdftocairo's and pstoedit's PDF input is checked as a PDF first)."""
