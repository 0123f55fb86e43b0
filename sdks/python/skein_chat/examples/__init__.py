"""Example bots, shipped with the package: ``python -m skein_chat.examples.echo_bot`` (and
``context_bot``, ``webhook_bot``) run them as they are; copy one to start a bot of your own."""
