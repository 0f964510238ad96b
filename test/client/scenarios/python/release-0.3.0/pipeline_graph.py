"""The scenario's pipeline graph as HTML for the client of release 0.3.0 (see ../pipeline_graph.py): that contract
reaches the HTML only through get_pipeline_artifact, whose media type follows `artifact_key`; this generator reads
that answer as a PipelineGraph (`'str' object has no attribute 'items'`), so yesterday's client does not read the
graph."""

from typing import Optional

from analytics_desk_client import ContentApi


def read_graph_html(content: ContentApi, tenant: str) -> Optional[str]:
    """The tenant's pipeline graph as HTML text, or None when this client has no operation that reads it."""
    return None
