"""Markdown out of documents for language models and readers: pdf (Poppler's text), pptx (its slide
XML), xlsx (openpyxl), and what LibreOffice turns into those first (ppt, odp, xls, ods)."""
