from mcp_accept.cli import main

main()
