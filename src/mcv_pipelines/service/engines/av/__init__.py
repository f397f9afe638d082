"""Audio and video with FFmpeg: the engine, its formats and codecs, its options and its text
watermark. May import the engines folder's shared modules."""
