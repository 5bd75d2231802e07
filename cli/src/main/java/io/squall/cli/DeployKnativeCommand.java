package io.squall.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.squall.knative.deploy.ClusterDeployer;
import io.squall.knative.manifest.Manifests;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code squall deploy knative}: a graph file's Kubernetes objects (see {@code docs/knative.md}), written to a
 * directory, printed, applied to the current kube context, deleted from it, or diffed against it.
 */
@Command(name = "knative", description = {
        "Turn a graph file into Knative Services and their surroundings; write, apply, delete or diff them.",
        "Without --out or an action, prints the objects as one YAML stream (kubectl apply -f - takes it)."})
final class DeployKnativeCommand implements Callable<Integer> {

    @Option(names = "--graph", required = true, description = "the graph file (graph.yaml)")
    Path graph;

    @Option(names = "--out", description = "write one file per object into this directory (NN-KIND-NAME.yaml)")
    Path out;

    @ArgGroup(exclusive = true)
    Action action;

    static final class Action {
        @Option(names = "--apply", description = "server-side apply the objects to the current kube context")
        boolean apply;

        @Option(names = "--delete", description = "delete the objects from the current kube context")
        boolean delete;

        @Option(names = "--dry-run", description = "print how the current kube context differs from the objects (a unified diff)")
        boolean dryRun;
    }

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        Manifests manifests = Manifests.load(graph);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("graph", manifests.graph().name());
        report.put("namespace", manifests.graph().namespace());
        if (out != null) {
            manifests.writeTo(out);
            report.put("out", out.toString());
            report.put("files", List.copyOf(manifests.files().keySet()));
            stderr.println("squall deploy: wrote " + manifests.files().size() + " files to " + out);
        }
        if (action == null) {
            if (out == null) {
                stdout.print(String.join("---\n", manifests.files().values()));
                stdout.flush();
            } else {
                Json.print(stdout, report);
            }
            return 0;
        }
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            ClusterDeployer deployer = new ClusterDeployer(client);
            if (action.dryRun) {
                String diff = deployer.diff(manifests);
                stdout.print(diff);
                stdout.flush();
                stderr.println("squall deploy: " + (diff.isEmpty() ? "the cluster matches the graph" : "the cluster differs from the graph")
                        + " (" + client.getMasterUrl() + ")");
                return 0;
            }
            List<String> lines = action.apply ? deployer.apply(manifests) : deployer.delete(manifests);
            lines.forEach(line -> stderr.println("squall deploy: " + line));
            report.put(action.apply ? "applied" : "deleted", lines.stream().map(l -> l.substring(l.indexOf(' ') + 1)).toList());
            report.put("cluster", client.getMasterUrl().toString());
            Json.print(stdout, report);
        }
        return 0;
    }
}
