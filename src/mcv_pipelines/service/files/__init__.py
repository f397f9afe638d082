"""Where task files live and how they are named and linked.

storage/ (a directory or an S3 bucket behind one Storage seam), safe file names (paths) and the
signatures of upload forms and download links (signing).

May import: state (task failures), the package's redact. Never work or http.
"""
