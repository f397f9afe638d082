"""Web pages with headless Chromium (capture-website) over the DevTools pipe. May import the
engines folder's shared modules."""
