"""Framework drivers: a short program on an agent framework, written as a user of the framework
would write it, that ``host test`` runs as a host (its adapter in :mod:`mcp_accept.hosts.adapters`)
with the environment of ``--client`` (:mod:`mcp_accept.hosts.own_client`). Each imports nothing of
mcp-accept, so any interpreter that has the framework can run it by its file:
:mod:`.openai_agents` (the OpenAI Agents SDK for Python), :mod:`.pydantic_ai_agent` (PydanticAI),
:mod:`.langchain_agent` (LangChain with its MCP adapters), :mod:`.google_adk_agent` (Google ADK). None is named after its framework's
package: a script's folder comes first on ``sys.path``, and would shadow it.

The JavaScript frameworks' drivers are ES modules run by ``node``: ``ai_sdk_agent.mjs`` (the Vercel
AI SDK), ``openai_agents_agent.mjs`` (the OpenAI Agents SDK for JavaScript),
``mastra_agent.mjs`` (Mastra), each loaded after ``resolve_from.mjs``, which resolves the driver's imports from the folder
npm installed the framework into (:class:`mcp_accept.hosts.adapters.framework.DrivenNodeFramework`).

May import nothing of mcp-accept (each runs in an interpreter of the user's, by its file); the
adapters import this package only to find the files.
"""
