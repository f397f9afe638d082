"""Subtitles: text subtitle formats to each other (pysubs2 and readers of our own, in-process), and
the text subtitle streams of a video, or subtitle formats only ffmpeg reads, through ffmpeg."""
