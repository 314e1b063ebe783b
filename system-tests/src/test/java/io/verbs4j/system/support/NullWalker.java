// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.support;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Calls every public method and constructor of a public API type once per reference parameter, with null there and
 * a valid sample value everywhere else, and records each call that does not fail with a
 * {@link NullPointerException} or {@link IllegalArgumentException} whose message names the parameter (as
 * {@code Objects.requireNonNull(config, "config")} does). Parameter names come from the class files (the build
 * compiles with {@code -parameters}).
 * <p>
 * Sample values are registered per type; a parameter type without one is a failure too, so that a new API type
 * cannot slip past the walk. Parameters documented as accepting null are listed as {@code Type.method.parameter}.
 */
public final class NullWalker
{
    private final Map<Class<?>, Supplier<Object>> samples = new HashMap<>();
    private final Set<String> nullable;
    private final List<String> failures = new ArrayList<>();
    private int calls;

    /**
     * @param nullable {@code Type.method.parameter} of the parameters documented as accepting null.
     */
    public NullWalker(final Set<String> nullable)
    {
        this.nullable = nullable;
        sample(boolean.class, () -> false);
        sample(byte.class, () -> (byte)0);
        sample(short.class, () -> (short)0);
        sample(char.class, () -> 'x');
        // 0 for ints (ranks, roots, array offsets, limits) and 1 for longs (counts, so that a null buffer is not the
        // documented "nothing to transfer" case): valid almost everywhere, and a null check comes first anyway.
        sample(int.class, () -> 0);
        sample(long.class, () -> 1L);
        sample(float.class, () -> 0f);
        sample(double.class, () -> 0d);
    }

    /**
     * @param type     a parameter type.
     * @param supplier makes a valid value of it (a fresh one where calls may consume it).
     * @param <T>      the type.
     * @return this.
     */
    public <T> NullWalker sample(final Class<T> type, final Supplier<? extends T> supplier)
    {
        samples.put(type, supplier::get);
        return this;
    }

    /**
     * Walks the public instance methods {@code api} declares or inherits (not {@link Object}'s) on {@code target}.
     *
     * @param api    the public API type (its parameter names are used).
     * @param target an instance.
     */
    public void walkInstance(final Class<?> api, final Object target)
    {
        walkDescriptor(api, () -> target, null);
    }

    /**
     * Walks a reusable descriptor whose setters may take null and leave the check to the call that uses it: each
     * setter call that accepts null is followed by {@code use} on the same (fresh) descriptor, which must then fail
     * naming the parameter.
     *
     * @param api   the public API type.
     * @param fresh makes a new instance for each call.
     * @param use   runs the descriptor (e.g. {@code comm::run}), or null when the setter itself must refuse.
     */
    public void walkDescriptor(final Class<?> api, final Supplier<Object> fresh, final Consumer<Object> use)
    {
        for (final Method method : api.getMethods())
        {
            if (!Modifier.isStatic(method.getModifiers()) && Object.class != method.getDeclaringClass())
            {
                walk(api, method, fresh, use);
            }
        }
    }

    /**
     * Walks the public static methods and the public constructors {@code api} declares.
     *
     * @param api a public API class.
     */
    public void walkStatics(final Class<?> api)
    {
        for (final Method method : api.getDeclaredMethods())
        {
            if (Modifier.isStatic(method.getModifiers()) && Modifier.isPublic(method.getModifiers()) &&
                !method.isSynthetic() && !(api.isEnum() && "valueOf".equals(method.getName())))
            {
                walk(api, method, () -> null, null);
            }
        }
        if (!Modifier.isAbstract(api.getModifiers()) && !api.isEnum() && !Throwable.class.isAssignableFrom(api))
        {
            for (final Constructor<?> constructor : api.getConstructors())
            {
                walk(api, constructor, () -> null, null);
            }
        }
    }

    /** @return one line per call that did not name its null argument. */
    public List<String> failures()
    {
        return failures;
    }

    /** @return how many calls with a null argument were made. */
    public int calls()
    {
        return calls;
    }

    private void walk(final Class<?> api, final Executable executable, final Supplier<Object> target,
        final Consumer<Object> use)
    {
        final Parameter[] parameters = executable.getParameters();
        for (int i = 0; i < parameters.length; i++)
        {
            if (parameters[i].getType().isPrimitive())
            {
                continue;
            }
            final String name = executable instanceof Constructor ? "<init>" : executable.getName();
            final String where = api.getSimpleName() + "." + name + "(" + signature(parameters) + ") parameter " +
                parameters[i].getName();
            if (!parameters[i].isNamePresent())
            {
                failures.add(where + ": no parameter names in the class file (compile with -parameters)");
                return;
            }
            if (nullable.contains(api.getSimpleName() + "." + name + "." + parameters[i].getName()))
            {
                continue;
            }
            final Object[] args = new Object[parameters.length];
            boolean complete = true;
            for (int j = 0; j < parameters.length; j++)
            {
                if (j != i)
                {
                    final Supplier<Object> sample = sampleFor(parameters[j].getType());
                    if (null == sample)
                    {
                        failures.add(where + ": no sample value for " + parameters[j].getType().getName() +
                            " (register one)");
                        complete = false;
                        break;
                    }
                    args[j] = sample.get();
                }
            }
            if (complete)
            {
                calls++;
                final String problem = call(executable, target.get(), args, parameters[i].getName(), use);
                if (null != problem)
                {
                    failures.add(where + ": " + problem);
                }
            }
        }
    }

    private Supplier<Object> sampleFor(final Class<?> type)
    {
        final Supplier<Object> exact = samples.get(type);
        if (null != exact)
        {
            return exact;
        }
        if (type.isEnum())
        {
            return () -> type.getEnumConstants()[0];
        }
        return null;
    }

    private static String call(final Executable executable, final Object target, final Object[] args,
        final String parameter, final Consumer<Object> use)
    {
        try
        {
            if (executable instanceof Method)
            {
                ((Method)executable).invoke(target, args);
            }
            else
            {
                ((Constructor<?>)executable).newInstance(args);
            }
        }
        catch (final InvocationTargetException ex)
        {
            return judge(ex.getCause(), parameter);
        }
        catch (final ReflectiveOperationException ex)
        {
            return "cannot call: " + ex;
        }
        if (null == use)
        {
            return "accepted null";
        }
        try
        {
            use.accept(target);
            return "accepted null, and so did using the descriptor";
        }
        catch (final RuntimeException ex)
        {
            return judge(ex, parameter);
        }
    }

    private static String judge(final Throwable thrown, final String parameter)
    {
        final boolean rightType = thrown instanceof NullPointerException || thrown instanceof IllegalArgumentException;
        final String message = thrown.getMessage();
        if (rightType && null != message && message.contains(parameter))
        {
            return null;
        }
        return "threw " + thrown + (rightType ? " (the message must name the parameter)" : "") + " at " +
            (thrown.getStackTrace().length > 0 ? thrown.getStackTrace()[0] : "?");
    }

    private static String signature(final Parameter[] parameters)
    {
        final StringBuilder text = new StringBuilder();
        for (final Parameter parameter : parameters)
        {
            text.append(text.length() > 0 ? ", " : "").append(parameter.getType().getSimpleName());
        }
        return text.toString();
    }
}
