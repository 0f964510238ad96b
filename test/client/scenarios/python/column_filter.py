"""The scenario's export with a column filter, as this contract's client sends it: the list form `filter`
(`<column>:<value>`). release-0.3.0/column_filter.py is the same step for the client of release 0.3.0, which the test
puts in this file's place when it runs yesterday's client."""

from analytics_desk_client import DimensionsApi, SortOrder


def export_with_filter(dimensions: DimensionsApi, tenant: str) -> tuple[str, bool]:
    """The CSV export of cost_centres sorted by budget, and whether the filter active=true was sent."""
    csv = dimensions.export_dimension(tenant, "cost_centres", sort="budget_chf", order=SortOrder.DESC, filter=["active:true"])
    return csv, True
