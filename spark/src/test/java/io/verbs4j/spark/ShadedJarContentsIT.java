// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the shaded jar holds (failsafe, after package): verbs4j with Netty and Agrona only under io.verbs4j.shaded
 * (nothing that could clash with a Spark class path), Netty's epoll library for x86_64 and aarch_64 under the name
 * the relocated loader looks for, no HdrHistogram, the Automatic-Module-Name, LICENSE and NOTICE; and a
 * dependency-reduced POM that declares none of the bundled libraries.
 */
class ShadedJarContentsIT
{
    private static final String NATIVE_PREFIX = "META-INF/native/libio_verbs4j_shaded_netty_transport_native_epoll_";

    @Test
    void shouldBundleOnlyRelocatedNettyAndAgronaWithBothEpollNatives() throws Exception
    {
        final Path jar = Path.of(System.getProperty("verbs4j.it.shadedJar"));
        final List<String> unrelocated = new ArrayList<>();
        int relocatedAgrona = 0;
        int relocatedNetty = 0;
        try (JarFile file = new JarFile(jar.toFile()))
        {
            for (final Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); )
            {
                final String name = entries.nextElement().getName();
                if (name.startsWith("org/agrona/") || name.startsWith("io/netty/") ||
                    name.startsWith("org/HdrHistogram/") || name.startsWith("META-INF/native/libnetty_"))
                {
                    unrelocated.add(name);
                }
                relocatedAgrona += name.startsWith("io/verbs4j/shaded/org/agrona/") ? 1 : 0;
                relocatedNetty += name.startsWith("io/verbs4j/shaded/io/netty/") ? 1 : 0;
            }
            assertEquals(List.of(), unrelocated, "entries that would clash on a Spark class path");
            assertTrue(relocatedAgrona > 100, "relocated Agrona classes: " + relocatedAgrona);
            assertTrue(relocatedNetty > 100, "relocated Netty classes: " + relocatedNetty);
            for (final String arch : List.of("x86_64", "aarch_64"))
            {
                assertNotNull(file.getEntry(NATIVE_PREFIX + arch + ".so"), "no epoll native for " + arch);
            }
            assertEquals("io.verbs4j.spark",
                file.getManifest().getMainAttributes().getValue("Automatic-Module-Name"));
            assertNotNull(file.getEntry("META-INF/LICENSE"));
            assertNotNull(file.getEntry("META-INF/NOTICE"));
            assertNotNull(file.getEntry("META-INF/services/io.verbs4j.spi.TransportProvider"));
        }

        // the class path of this test is the shaded jar without verbs4j's own dependencies: Agrona only relocated
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.agrona.concurrent.UnsafeBuffer"));
        final Class<?> relocated = assertDoesNotThrowClass("io.verbs4j.shaded.org.agrona.concurrent.UnsafeBuffer");
        assertTrue(relocated.getProtectionDomain().getCodeSource().getLocation().getPath().endsWith(
            jar.getFileName().toString()));

        // what the reduced POM declares for users (not test scope, plugin configuration or exclusions): Spark only
        final Document reducedPom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(Path.of(System.getProperty("verbs4j.it.reducedPom")).toFile());
        final List<String> declared = new ArrayList<>();
        for (Node node = reducedPom.getDocumentElement().getFirstChild(); null != node; node = node.getNextSibling())
        {
            if ("dependencies".equals(node.getNodeName()))
            {
                for (Node dependency = node.getFirstChild(); null != dependency;
                    dependency = dependency.getNextSibling())
                {
                    if ("dependency".equals(dependency.getNodeName()) &&
                        !"test".equals(scope((Element)dependency)))
                    {
                        final Element element = (Element)dependency;
                        declared.add(element.getElementsByTagName("groupId").item(0).getTextContent().trim() +
                            ":" + element.getElementsByTagName("artifactId").item(0).getTextContent().trim());
                    }
                }
            }
        }
        assertEquals(List.of("org.apache.spark:spark-core_2.13"), declared, "dependencies of the reduced POM");
    }

    private static String scope(final Element dependency)
    {
        for (Node node = dependency.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if ("scope".equals(node.getNodeName()))
            {
                return node.getTextContent().trim();
            }
        }
        return "compile";
    }

    private static Class<?> assertDoesNotThrowClass(final String name)
    {
        try
        {
            return Class.forName(name);
        }
        catch (final ClassNotFoundException ex)
        {
            throw new AssertionError(name + " not in the shaded jar", ex);
        }
    }
}
