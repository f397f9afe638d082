"""E-books with Calibre's ebook-convert: epub, mobi, azw3, fb2, lit, pdb, rtf, txt, docx ... to each
other and to pdf. Calibre is optional (a large Debian package): without it these pairs are simply not
listed. May import the engines folder's shared modules."""
