// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.launch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The command line of a child JVM on this machine: the {@code java} of this JVM's {@code java.home}, {@link JvmFlags},
 * extra JVM arguments, this JVM's class path, the main class and its arguments, optionally behind a prefix command
 * that ends by running its arguments ({@code taskset -c 3}, {@code ip netns exec ns1}).
 *
 * <pre>{@code
 * Process child = JvmLauncher.of(PeerMain.class).jvmArgs(List.of("-Xmx256m")).args(List.of("shm")).start();
 * }</pre>
 *
 * <p>Only the command is decided here; what to do with the child's output, how to wait for it and how to end it
 * ({@link ProcessReaper}) belong to the caller, which knows what its child prints and how long it may take.
 * Configure on one thread; {@link #start} may be called again for another child.
 */
public final class JvmLauncher
{
    private final String mainClass;
    private List<String> prefix = List.of();
    private List<String> jvmArgs = List.of();
    private List<String> args = List.of();
    private String classPath = System.getProperty("java.class.path");
    private boolean withFlags = true;

    private JvmLauncher(final String mainClass)
    {
        if (mainClass.isBlank())
        {
            throw new IllegalArgumentException("main class must be a fully qualified class name but was blank");
        }
        this.mainClass = mainClass;
    }

    /**
     * A launcher for {@code mainClass}.
     *
     * @param mainClass fully qualified name of a class with {@code main(String[])} on the child's class path.
     * @return the launcher, with no extra arguments yet.
     */
    public static JvmLauncher of(final String mainClass)
    {
        return new JvmLauncher(Objects.requireNonNull(mainClass, "mainClass"));
    }

    /**
     * A launcher for {@code mainClass}.
     *
     * @param mainClass a class with {@code main(String[])} on the child's class path.
     * @return the launcher, with no extra arguments yet.
     */
    public static JvmLauncher of(final Class<?> mainClass)
    {
        return of(Objects.requireNonNull(mainClass, "mainClass").getName());
    }

    /**
     * The {@code java} executable of the running JVM, so a child runs on the same JDK.
     *
     * @return the path of {@code java.home/bin/java}.
     */
    public static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Sets a command that runs the JVM, written before {@code java} (default none).
     *
     * @param prefix for example {@code taskset -c 3}; the command must end by running its arguments.
     * @return this.
     */
    public JvmLauncher prefix(final List<String> prefix)
    {
        this.prefix = List.copyOf(Objects.requireNonNull(prefix, "prefix"));
        return this;
    }

    /**
     * Sets JVM arguments written after {@link JvmFlags#LIST} (for example {@code -Xmx256m}, {@code -Dkey=value}).
     *
     * @param jvmArgs the arguments, default none.
     * @return this.
     */
    public JvmLauncher jvmArgs(final List<String> jvmArgs)
    {
        this.jvmArgs = List.copyOf(Objects.requireNonNull(jvmArgs, "jvmArgs"));
        return this;
    }

    /**
     * Sets the arguments of the main class.
     *
     * @param args the arguments, default none.
     * @return this.
     */
    public JvmLauncher args(final List<String> args)
    {
        this.args = List.copyOf(Objects.requireNonNull(args, "args"));
        return this;
    }

    /**
     * Sets the child's class path (default this JVM's {@code java.class.path}).
     *
     * @param classPath the class path, entries separated by the platform's path separator.
     * @return this.
     */
    public JvmLauncher classPath(final String classPath)
    {
        if (Objects.requireNonNull(classPath, "classPath").isBlank())
        {
            throw new IllegalArgumentException("classPath must not be blank");
        }
        this.classPath = classPath;
        return this;
    }

    /**
     * Leaves out {@link JvmFlags#LIST}, for a test that shows what a JVM started without them reports.
     *
     * @return this.
     */
    public JvmLauncher withoutFlags()
    {
        this.withFlags = false;
        return this;
    }

    /**
     * The command line, as configured now.
     *
     * @return prefix, {@code java}, flags, JVM arguments, {@code -cp} class path, main class, arguments.
     */
    public List<String> command()
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(javaExecutable());
        if (withFlags)
        {
            command.addAll(JvmFlags.LIST);
        }
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /**
     * A process builder for {@link #command()}, for a caller that sets redirections or the environment itself.
     *
     * @return a new builder; its streams are pipes until the caller redirects them.
     */
    public ProcessBuilder processBuilder()
    {
        return new ProcessBuilder(command());
    }

    /**
     * Starts the child with its standard error inherited and its standard input and output as pipes.
     *
     * @return the running child.
     * @throws IOException if the process cannot be started.
     */
    public Process start() throws IOException
    {
        return processBuilder().redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
