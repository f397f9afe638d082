"""What `mcv test` needs: readers that look at the files a run made (their format sniffed from the
bytes, their size, pages, text, streams and members) and compare them with golden files."""

__all__: list[str] = []
