"""The scenario's export with a column filter for the client of release 0.3.0 (see ../column_filter.py): that
contract has only the free-form `filters` object, which this generator sends as one JSON text (refused with 400), so
yesterday's client exports without the filter."""

from analytics_desk_client import DimensionsApi, SortOrder


def export_with_filter(dimensions: DimensionsApi, tenant: str) -> tuple[str, bool]:
    """The CSV export of cost_centres sorted by budget, and whether the filter active=true was sent."""
    csv = dimensions.export_dimension(tenant, "cost_centres", sort="budget_chf", order=SortOrder.DESC)
    return csv, False
