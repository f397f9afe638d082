"""Mail: eml, Outlook msg, mbox and Apple Mail's emlx read into one model (message.py) and written as an
html page, text, Markdown, a PDF printed by the web engine, or (from msg and emlx) an eml; the
attachments come out as further files of the task (mail_engine.py)."""

__all__: list[str] = []
