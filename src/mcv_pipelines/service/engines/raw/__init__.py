"""Camera raw: LibRaw's programs develop a raw file (white balance, demosaicing, orientation) to a
picture that Pillow then encodes. May import the engines folder's shared modules and image/."""
