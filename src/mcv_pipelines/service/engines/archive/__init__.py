"""Archives: the archive operation (zip, tar, tar.gz, tar.bz2, 7z); convert among zip, 7z and the tar
forms (tar.zst and tar.lz4 too), of what unar reads (rar, cab, iso, cpio, ar, deb, arj, Z, lzma), and
to ISO 9660 images with xorriso. May import the engines folder's shared modules."""
