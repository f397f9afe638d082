"""Pages and books: DjVu (djvulibre), XPS and OpenXPS (MuPDF), and comic archives (cbz, cbr, cbt, cb7)
turned into cbz, pdf and epub. Documents of fixed pages that become page images, PDF or their text.
May import the engines folder's shared modules and archive/ (comic archives unpack under its guards)."""
