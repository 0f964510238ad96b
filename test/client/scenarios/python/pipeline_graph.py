"""The scenario's pipeline graph as HTML, as this contract's client reads it: `get_pipeline_graph_html`, typed as
text. release-0.3.0/pipeline_graph.py is the same step for the client of release 0.3.0, which the test puts in this
file's place when it runs yesterday's client."""

from typing import Optional

from analytics_desk_client import ContentApi


def read_graph_html(content: ContentApi, tenant: str) -> Optional[str]:
    """The tenant's pipeline graph as HTML text, or None when this client has no operation that reads it."""
    return content.get_pipeline_graph_html(tenant)
