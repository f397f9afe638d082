"""Image engines: Pillow (convert, thumbnail, optimize, watermark, metadata), the codec programs
Pillow lacks (libheif for HEIC/HEIF, libjxl for JPEG XL, ffmpeg for OpenEXR and JPEG-LS), DCMTK for DICOM,
OpenRaster's layers composited in-process, and ImageMagick / GraphicsMagick as command engines with
their policy. May import the engines folder's shared modules."""
