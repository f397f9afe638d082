"""Text documents with Pandoc: markup (Markdown, reStructuredText, Org, HTML, LaTeX, ...) and word
processor files (docx, odt, epub) to each other. Pandoc runs with ``--sandbox``, so a document that
names ``file://`` or network resources gets none of them. May import the engines folder's shared
modules."""
