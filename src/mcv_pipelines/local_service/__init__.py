"""The embedded local implementation of the conversion service (Starlette + uvicorn)."""
