"""PDF engines: pypdf (merge, optimize, metadata, watermark), qpdf, Ghostscript, Poppler's pdftoppm
(pages to images) and pdftotext/pdftohtml (text and HTML), with the PDF input checks and page ranges
they share. May import engines/ and image/."""
