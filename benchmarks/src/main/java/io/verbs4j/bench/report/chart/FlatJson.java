// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses one flat JSON object, the shape of every line the tools write ({@code coll -J}, {@code perftest
 * --format json}): string keys, values that are strings, numbers, booleans or null. Nested objects and arrays are
 * refused: the tools never write them, so one is a sign of some other file. No JSON library is needed for that.
 */
final class FlatJson
{
    private final String text;
    private int position;

    private FlatJson(final String text)
    {
        this.text = text;
    }

    /**
     * Parses a line.
     *
     * @param line one JSON object.
     * @return its members in order: {@link String}, {@link Double}, {@link Boolean}, or {@code null} values.
     * @throws IllegalArgumentException naming the column, if the line is not one flat JSON object.
     */
    static Map<String, Object> parse(final String line)
    {
        return new FlatJson(line).object();
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> members = new LinkedHashMap<>();
        skipSpace();
        expect('{');
        skipSpace();
        if (peek() == '}')
        {
            position++;
        }
        else
        {
            while (true)
            {
                skipSpace();
                final String key = string();
                skipSpace();
                expect(':');
                skipSpace();
                members.put(key, value());
                skipSpace();
                final char next = next();
                if ('}' == next)
                {
                    break;
                }
                if (',' != next)
                {
                    throw error("expected ',' or '}'");
                }
            }
        }
        skipSpace();
        if (position < text.length())
        {
            throw error("text after the object");
        }
        return members;
    }

    private Object value()
    {
        final char c = peek();
        if ('"' == c)
        {
            return string();
        }
        if ('{' == c || '[' == c)
        {
            throw error("nested objects and arrays are not rows of the verbs4j tools");
        }
        if (text.startsWith("true", position))
        {
            position += 4;
            return Boolean.TRUE;
        }
        if (text.startsWith("false", position))
        {
            position += 5;
            return Boolean.FALSE;
        }
        if (text.startsWith("null", position))
        {
            position += 4;
            return null;
        }
        return number();
    }

    private Double number()
    {
        final int start = position;
        while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0)
        {
            position++;
        }
        if (start == position)
        {
            throw error("expected a value");
        }
        try
        {
            return Double.valueOf(text.substring(start, position));
        }
        catch (final NumberFormatException ex)
        {
            position = start;
            throw error("not a number");
        }
    }

    private String string()
    {
        expect('"');
        final StringBuilder value = new StringBuilder();
        while (true)
        {
            final char c = next();
            if ('"' == c)
            {
                return value.toString();
            }
            if ('\\' != c)
            {
                value.append(c);
                continue;
            }
            final char escaped = next();
            switch (escaped)
            {
                case '"', '\\', '/' -> value.append(escaped);
                case 'n' -> value.append('\n');
                case 'r' -> value.append('\r');
                case 't' -> value.append('\t');
                case 'b' -> value.append('\b');
                case 'f' -> value.append('\f');
                case 'u' -> value.append(unicode());
                default -> throw error("bad escape '\\" + escaped + "'");
            }
        }
    }

    private char unicode()
    {
        if (position + 4 > text.length())
        {
            throw error("truncated \\u escape");
        }
        try
        {
            final char c = (char)Integer.parseInt(text.substring(position, position + 4), 16);
            position += 4;
            return c;
        }
        catch (final NumberFormatException ex)
        {
            throw error("bad \\u escape");
        }
    }

    private void expect(final char expected)
    {
        if (next() != expected)
        {
            position--;
            throw error("expected '" + expected + "'");
        }
    }

    private char next()
    {
        if (position >= text.length())
        {
            throw error("unexpected end of line");
        }
        return text.charAt(position++);
    }

    private char peek()
    {
        return position < text.length() ? text.charAt(position) : '\0';
    }

    private void skipSpace()
    {
        while (position < text.length() && Character.isWhitespace(text.charAt(position)))
        {
            position++;
        }
    }

    private IllegalArgumentException error(final String what)
    {
        return new IllegalArgumentException("not a JSON object: " + what + " at column " + (position + 1));
    }
}
