"""Echo bot: answers each message it receives with the same text, to the same audience.
Env: SKEIN_URL, SKEIN_USER + SKEIN_PASSWORD (or SKEIN_API_KEY), BOT_PORT, BOT_PUBLIC_URL (how Skein reaches it)."""
import os

from skein import SkeinClient, WebhookBot

client = SkeinClient(os.environ.get("SKEIN_URL", "http://localhost:8080"), api_key=os.environ.get("SKEIN_API_KEY"))
if os.environ.get("SKEIN_PASSWORD"):
    client.login(os.environ["SKEIN_PASSWORD"], user_tag=os.environ["SKEIN_USER"])
me = client.me()
bot = WebhookBot(host="0.0.0.0", port=int(os.environ.get("BOT_PORT", "8700"))).start()


@bot.on("sent")
def echo(event: dict, _webhook_id: str) -> None:
    for message in event["content"]["messages"]:
        if message["author"]["uid"] != me["uid"]:
            client.reply(message, f"echo: {message['content']}")


bot.register_endpoint(client, os.environ.get("BOT_PUBLIC_URL"))
print(f"echoing as @{me['user_tag']}; Ctrl-C to stop")
bot.join()
