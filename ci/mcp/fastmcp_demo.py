#!/usr/bin/env python3
"""Stand-in for `demo mcp`: the demo's tools served by the official Python SDK.

In mcp 2.x FastMCP is called `MCPServer` (mcp.server.mcpserver); this file uses
that. It serves the same tool surface as our Rust demo so the peer-test
clients (client_check.py / client_check.mjs) can be developed against it, and
it is the "official SDK" peer in the benchmarks (bench_fastmcp.py).

Run over stdio:  python ci/mcp/fastmcp_demo.py
Sign-in state:   signed out by default (as the demo in MCP mode);
                 APPFUNCTIONS_DEMO_SIGNED_IN=1 signs in.

One deliberate deviation from MCPServer's defaults: an unknown tool name is a
JSON-RPC protocol error (-32602), not an isError result, because that is what
our server does and what the spec's tools page lists under protocol errors.
"""
from __future__ import annotations

import itertools
import os
from enum import Enum
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import BaseModel, Field

INT32 = dict(ge=-(2**31), le=2**31 - 1)


class Priority(str, Enum):
    Low = "Low"
    Normal = "Normal"
    High = "High"


class Order(BaseModel):
    id: str
    customer: str
    quantity: int = Field(**INT32)
    priority: Priority
    status: str


class Note(BaseModel):
    id: str
    title: str
    content: str


class NoteList(BaseModel):
    notes: list[Note]


class OrderList(BaseModel):
    orders: list[Order]


class DemoServer(MCPServer):
    async def call_tool(self, name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if self._tool_manager.get_tool(name) is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name}")
        return await super().call_tool(name, arguments, *args, **kwargs)


def build_server() -> MCPServer:
    mcp = DemoServer("appfunctions-demo-standin")
    state: dict[str, Any] = {
        "signed_in": os.environ.get("APPFUNCTIONS_DEMO_SIGNED_IN", "") in ("1", "true"),
        "orders": {},
        "notes": {},
    }
    ids = itertools.count(1)

    @mcp.tool(title="Create order", description="Create an order for a customer.")
    def create_order(
        customer: str,
        quantity: Annotated[int, Field(**INT32)],
        priority: Priority,
    ) -> Order:
        order = Order(
            id=f"order-{next(ids)}",
            customer=customer,
            quantity=quantity,
            priority=priority,
            status="Open",
        )
        state["orders"][order.id] = order
        return order

    @mcp.tool(title="Cancel order", description="Cancel an order by id. Requires sign-in.")
    def cancel_order(order: Annotated[str, Field(description="Order id")]) -> Order:
        if not state["signed_in"]:
            raise ToolError("Sign in to cancel orders.")
        found = state["orders"].get(order)
        if found is None:
            raise ToolError(f"No order with id {order!r}.")
        found.status = "Cancelled"
        return found

    @mcp.tool(title="List notes", description="List all notes.")
    def list_notes() -> NoteList:
        return NoteList(notes=list(state["notes"].values()))

    @mcp.tool(title="Create note", description="Create a note.")
    def create_note(title: str, content: str) -> Note:
        note = Note(id=f"note-{next(ids)}", title=title, content=content)
        state["notes"][note.id] = note
        return note

    @mcp.tool(title="Edit note", description="Edit a note; a null title keeps the old one.")
    def edit_note(noteId: str, title: str | None, content: str) -> Note:  # noqa: N803 (wire name)
        note = state["notes"].get(noteId)
        if note is None:
            raise ToolError(f"No note with id {noteId!r}.")
        if title is not None:
            note.title = title
        note.content = content
        return note

    @mcp.tool(title="Search orders", description="Search orders by customer substring.")
    def search_order(query: str, limit: Annotated[int, Field(**INT32)] | None = None) -> OrderList:
        hits = [o for o in state["orders"].values() if query.lower() in o.customer.lower()]
        return OrderList(orders=hits[: limit] if limit is not None else hits)

    return mcp


if __name__ == "__main__":
    build_server().run("stdio")
