"""flowstudio -- flow-studio, a local web application over the module
flowplatform: the page explores a method's parameters on a pair and shows
the flow as they move (docs/flow-studio.md).

    cli.py      the command line, the server's start and stop
    server.py   HTTP: the static page and the JSON API
    catalog.py  the sequences, videos and cameras offered, their frames
    engine.py   the computations of one or two parameter sets on a pair
    live.py     the live mode: flows of consecutive frames as events
    pictures.py PNG, the error map, the arrows' samples
    wire.py     JSON and events as they go to the page
"""
