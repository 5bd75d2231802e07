package io.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A benchmark's conversations: each is one simulated user's turns, run in order, each turn resending the whole
 * history. The same parameters and seed give the same workload.
 *
 * @param conversations the users' turns; each turn is the new user message and the tokens to generate
 */
public record Workload(List<List<Turn>> conversations) {

    private static final String[] WORDS = {"time", "year", "people", "way", "day", "man", "thing", "woman", "life",
            "child", "world", "school", "state", "family", "student", "group", "country", "problem", "hand", "part",
            "place", "case", "week", "company", "system", "program", "question", "work", "government", "number",
            "night", "point", "home", "water", "room", "mother", "area", "money", "story", "fact", "month", "lot",
            "right", "study", "book", "eye", "job", "word", "business", "issue"};

    /**
     * One turn.
     *
     * @param system    the shared system prefix, or null
     * @param user      the user's new message
     * @param maxTokens tokens to generate
     */
    public record Turn(String system, String user, int maxTokens) {
    }

    public Workload {
        conversations = conversations.stream().map(List::copyOf).toList();
    }

    /** Requests in all. */
    public int requests() {
        return conversations.stream().mapToInt(List::size).sum();
    }

    /**
     * Synthetic prompts of about {@code isl} tokens: a shared system prefix of {@code prefixShare × isl} tokens
     * and a unique random remainder, {@code turns} per user.
     *
     * @param tokensPerWord how many tokens one synthetic word becomes, measured on the target
     */
    public static Workload synthetic(int requests, int isl, int osl, double prefixShare, int turns, long seed,
                                     double tokensPerWord) {
        if (requests < 1 || isl < 1 || osl < 1 || turns < 1 || prefixShare < 0 || prefixShare > 1) {
            throw new IllegalArgumentException("need requests, isl, osl, turns >= 1 and 0 <= prefix-share <= 1");
        }
        Random random = new Random(seed);
        int sharedWords = (int) Math.round(isl * prefixShare / tokensPerWord);
        int uniqueWords = Math.max(1, (int) Math.round(isl * (1 - prefixShare) / tokensPerWord));
        String system = sharedWords == 0 ? null : words(new Random(seed ^ 0x5DEECE66DL), sharedWords);
        List<List<Turn>> conversations = new ArrayList<>();
        for (int made = 0; made < requests; ) {
            List<Turn> conversation = new ArrayList<>();
            for (int t = 0; t < turns && made < requests; t++, made++) {
                conversation.add(new Turn(system, words(random, uniqueWords), osl));
            }
            conversations.add(conversation);
        }
        return new Workload(conversations);
    }

    /**
     * A JSONL trace, one request per line: {@code {"prompt": "...", "max_tokens": N}} or
     * {@code {"messages": [...], "max_tokens": N}} (the last user message is the turn; a system message is its
     * prefix). Lines with the same {@code "session"} form one multi-turn conversation, in file order.
     */
    public static Workload trace(Path file) {
        ObjectMapper mapper = new ObjectMapper();
        Map<String, List<Turn>> sessions = new LinkedHashMap<>();
        try {
            int line = 0;
            for (String text : Files.readAllLines(file)) {
                line++;
                if (text.isBlank()) {
                    continue;
                }
                JsonNode node = mapper.readTree(text);
                int maxTokens = node.path("max_tokens").asInt(128);
                String system = null;
                String user = node.path("prompt").asText(null);
                for (JsonNode message : node.path("messages")) {
                    if (message.path("role").asText().equals("system")) {
                        system = message.path("content").asText();
                    } else if (message.path("role").asText().equals("user")) {
                        user = message.path("content").asText();
                    }
                }
                if (user == null) {
                    throw new IllegalArgumentException(file + ":" + line + ": needs \"prompt\" or a user message");
                }
                String session = node.has("session") ? node.get("session").asText() : "line-" + line;
                sessions.computeIfAbsent(session, s -> new ArrayList<>()).add(new Turn(system, user, maxTokens));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + file, e);
        }
        if (sessions.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no requests");
        }
        return new Workload(new ArrayList<>(sessions.values()));
    }

    /** {@code count} random words, space-separated. */
    static String words(Random random, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                text.append(' ');
            }
            text.append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.toString();
    }
}
