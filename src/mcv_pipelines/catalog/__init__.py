"""The operations catalog: snapshots of GET /v2/operations, lookups, derived option schemas, checks."""

from mcv_pipelines.catalog.check import check_task, is_catalogued
from mcv_pipelines.catalog.formats import format_from_name, listing_formats, output_format_of
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey, Descriptor, EngineVersionDef, OptionDef
from mcv_pipelines.catalog.snapshot import (
    default_catalog_path,
    load_catalog,
    load_default_catalog,
    parse_listing,
    parse_pages,
    write_catalog,
)

__all__ = [
    "Catalog",
    "ConversionKey",
    "Descriptor",
    "EngineVersionDef",
    "OptionDef",
    "check_task",
    "default_catalog_path",
    "format_from_name",
    "is_catalogued",
    "listing_formats",
    "load_catalog",
    "load_default_catalog",
    "output_format_of",
    "parse_listing",
    "parse_pages",
    "write_catalog",
]
