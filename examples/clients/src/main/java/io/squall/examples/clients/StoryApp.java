package io.squall.examples.clients;

import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A LangChain4j app on the gateway's OpenAI API: LangChain4j's own OpenAI client, pointed at Squall's
 * {@code /v1}, streams a short story and prints it as it is generated.
 *
 * <pre>
 * java -cp … io.squall.examples.clients.StoryApp http://127.0.0.1:8000/v1 MODEL "a lighthouse keeper"
 * </pre>
 */
public final class StoryApp {

    private final StreamingChatModel model;

    /**
     * @param baseUrl the gateway's OpenAI base URL, e.g. {@code http://127.0.0.1:8000/v1}
     * @param apiKey the gateway's API key (any text when it has none)
     */
    public StoryApp(String baseUrl, String apiKey, String modelName, int maxTokens) {
        this.model = OpenAiStreamingChatModel.builder()
                .baseUrl(baseUrl)
                .apiKey(apiKey)
                .modelName(modelName)
                .maxTokens(maxTokens)
                .temperature(0.0)
                .timeout(Duration.ofMinutes(5))
                .build();
    }

    /**
     * Tells a story about {@code subject}, handing each piece of text to {@code onText} as it arrives; completes
     * with LangChain4j's final response (the whole text, the finish reason and the token usage).
     */
    public CompletableFuture<ChatResponse> tell(String subject, Consumer<String> onText) {
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        model.chat("Tell me a short story about " + subject + ".", new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String text) {
                onText.accept(text);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        return done;
    }

    /** {@code BASE_URL MODEL SUBJECT [MAX_TOKENS]}; the API key, if any, comes from {@code SQUALL_API_KEY}. */
    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: StoryApp http://HOST:PORT/v1 MODEL SUBJECT [MAX_TOKENS]");
            System.exit(2);
        }
        String key = System.getenv().getOrDefault("SQUALL_API_KEY", "none");
        int maxTokens = args.length > 3 ? Integer.parseInt(args[3]) : 200;
        ChatResponse response = new StoryApp(args[0], key, args[1], maxTokens).tell(args[2], text -> {
            System.out.print(text);
            System.out.flush();
        }).join();
        System.out.println();
        System.err.println("finish: " + response.finishReason() + ", tokens: " + response.tokenUsage());
    }
}
