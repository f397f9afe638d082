"""Archives: the archive operation (zip, tar, tar.gz, tar.bz2, 7z). May import the engines
folder's shared modules."""
