"""Routes: the conversions no single engine makes, run as one task through two or three engines.

planner.py finds them in the engines' own listings, under one rule: a route only re-encodes what one
engine's direct conversion already means. Its first hop carries the meaning (a drawing or a web page as
a picture, a document's pages as a PDF, a sound as WAV) and every later hop keeps it in the same medium
(a picture in another picture format, a PDF's pages as pictures or as their text, a sound in another
sound format). options.py decides which hop takes which of the task's options; engine.py runs the hops
in the task's own directories.

May import: the engines' contract and lookup at the top of engines/ (not any family: a route knows an
engine only by what it lists).
"""
