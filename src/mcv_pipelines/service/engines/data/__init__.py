"""Data formats in-process, on the task's bytes only (no program): documents among json, yaml, toml, xml
and plist (documents.py, xml_tree.py), tables among csv, tsv, jsonl, json and xlsx with md and html out
(tables.py, records.py, spreadsheet.py), and contacts and events out of vCard and iCalendar (cards.py,
content_lines.py). The limits every reader keeps against hostile input are in limits.py. May import the
engines folder's shared modules."""
