/**
 * Clients of a Squall gateway: {@link io.squall.examples.clients.RSocketChatClient} streams a chat's tokens over
 * the RSocket route {@code v1.chat} (TCP or WebSocket), {@link io.squall.examples.clients.StoryApp} is a
 * LangChain4j app on the gateway's OpenAI API. See {@code examples/clients/README.md}.
 */
package io.squall.examples.clients;
