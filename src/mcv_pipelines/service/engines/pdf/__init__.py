"""PDF engines: pypdf (merge, optimize, metadata, watermark), qpdf, Ghostscript and Poppler's
pdftoppm, with the PDF input checks and page ranges they share. May import engines/ and image/."""
