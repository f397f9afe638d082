"""Markdown out of documents for language models and readers: pdf (Poppler's text), pptx (its slide
XML), xlsx (openpyxl), what LibreOffice turns into those first (ppt, odp, xls, ods), and doc, abw
and 602 through LibreOffice's docx and Pandoc."""
