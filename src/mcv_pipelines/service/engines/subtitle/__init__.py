"""Subtitles: text subtitle formats to each other (pysubs2 and readers and writers of our own,
in-process, including broadcast SCC captions and the old JACOsub, RealText, PJS and AQTitle written),
and the text subtitle streams of a video, or subtitle formats only ffmpeg reads, through ffmpeg."""
