"""Image engines: Pillow (convert, thumbnail, optimize, watermark, metadata) and ImageMagick /
GraphicsMagick as command engines with their policy. May import the engines folder's shared modules."""
