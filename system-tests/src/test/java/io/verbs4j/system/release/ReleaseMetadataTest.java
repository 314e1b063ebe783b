// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.release;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

import javax.lang.model.SourceVersion;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What Maven Central (and a user's lib/ folder) needs from every published module, read from the POMs and, where
 * they were built, the jars of the source tree this test runs in:
 * <ul>
 *     <li>LICENSE (Apache License 2.0) and NOTICE at the top; the SPDX header in every .java file of the tree;</li>
 *     <li>the parent POM: url, licences, developers, scm, description, with the url and scm inherited unchanged;</li>
 *     <li>every module: artifactId {@code verbs4j-*} (unique in a lib/ folder), a name, a description, and for a jar
 *     an Automatic-Module-Name (property {@code verbs4j.moduleName}, unique and a legal module name);</li>
 *     <li>verbs4j-bom lists exactly the published modules, and carries the metadata itself (it has no parent);</li>
 *     <li>each module jar on this test's class path (after {@code package}) has its Automatic-Module-Name and
 *     META-INF/LICENSE + NOTICE; under {@code -Prelease} its -sources.jar and -javadoc.jar exist too.</li>
 * </ul>
 * Modules are found from the parent's {@code <modules>}, so a module merged in later is checked without editing this
 * test. A module is published unless its POM sets {@code maven.deploy.skip} to true.
 */
class ReleaseMetadataTest
{
    private static final String GROUP_ID = "io.verbs4j";
    private static final String BOM = "verbs4j-bom";
    private static final String SPDX_LINE = "// SPDX-License-Identifier: Apache-2.0";
    private static final String COPYRIGHT_REGEX = "// Copyright ([0-9]{4}(-[0-9]{4})? )?The verbs4j Authors";

    private static Path root;
    private static Element parent;
    private static String version;
    /** directory name → project element of every module of the reactor (not the parent). */
    private static final Map<String, Element> MODULES = new LinkedHashMap<>();

    @BeforeAll
    static void readPoms() throws Exception
    {
        final String configured = System.getProperty("verbs4j.rootDir");
        root = (null == configured || configured.isEmpty() ?
            Path.of("").toAbsolutePath().getParent() : Path.of(configured)).toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(root.resolve("pom.xml")), "no pom.xml at the root " + root);
        parent = readPom(root.resolve("pom.xml"));
        version = text(parent, "version");
        for (final String module : texts(child(parent, "modules"), "module"))
        {
            MODULES.put(module, readPom(root.resolve(module).resolve("pom.xml")));
        }
        assertTrue(MODULES.containsKey("bom"), "the parent lists no bom module: " + MODULES.keySet());
    }

    @Test
    void shouldHaveApacheLicenceAndNoticeAtTheTop() throws IOException
    {
        final String licence = Files.readString(root.resolve("LICENSE"), StandardCharsets.UTF_8);
        assertTrue(licence.contains("Apache License") && licence.contains("Version 2.0, January 2004") &&
            licence.contains("END OF TERMS AND CONDITIONS"), "LICENSE is not the Apache License 2.0 text");
        final String notice = Files.readString(root.resolve("NOTICE"), StandardCharsets.UTF_8);
        assertTrue(notice.startsWith("verbs4j\n") && notice.contains("Copyright The verbs4j Authors"), notice);
    }

    @Test
    void shouldHaveTheLicenceHeaderInEveryJavaFile() throws IOException
    {
        final List<String> missing = new ArrayList<>();
        final int[] count = new int[1];
        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult preVisitDirectory(final Path dir, final BasicFileAttributes attributes)
            {
                final String name = String.valueOf(dir.getFileName());
                return !dir.equals(root) && (name.startsWith(".") || "target".equals(name) ||
                    "node_modules".equals(name)) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes) throws IOException
            {
                if (file.toString().endsWith(".java") && attributes.isRegularFile())
                {
                    count[0]++;
                    final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                    if (lines.size() < 2 || !SPDX_LINE.equals(lines.get(0)) ||
                        !lines.get(1).matches(COPYRIGHT_REGEX))
                    {
                        missing.add(root.relativize(file).toString());
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
        assertTrue(count[0] > 100, "found only " + count[0] + " .java files under " + root);
        assertEquals(List.of(), missing, "files without the licence header: run build/add-license-headers.sh");
    }

    @Test
    void shouldHaveCentralMetadataInTheParent()
    {
        assertEquals(GROUP_ID, text(parent, "groupId"));
        assertEquals("verbs4j-parent", text(parent, "artifactId"));
        assertCentralMetadata("verbs4j-parent", parent);
        // without these, Maven appends each artifactId to the inherited url and scm addresses
        assertEquals("false", parent.getAttribute("child.project.url.inherit.append.path"));
        final Element scm = child(parent, "scm");
        for (final String attribute : List.of("connection", "developerConnection", "url"))
        {
            assertEquals("false", scm.getAttribute("child.scm." + attribute + ".inherit.append.path"), attribute);
        }
        // a release profile that attaches sources and javadoc and signs
        final String release = profile(parent, "release");
        for (final String plugin : List.of("maven-source-plugin", "maven-javadoc-plugin", "maven-gpg-plugin"))
        {
            assertTrue(release.contains(plugin), "release profile lacks " + plugin);
        }
    }

    @Test
    void shouldNameDescribeAndModuleNameEveryModule()
    {
        final Map<String, String> moduleNames = new TreeMap<>();
        final TreeSet<String> artifactIds = new TreeSet<>();
        for (final Map.Entry<String, Element> entry : MODULES.entrySet())
        {
            final String dir = entry.getKey();
            final Element pom = entry.getValue();
            final String artifactId = text(pom, "artifactId");
            assertTrue(artifactId.startsWith("verbs4j-"), dir + ": artifactId " + artifactId + " is not verbs4j-*");
            assertTrue(artifactIds.add(artifactId), dir + ": artifactId " + artifactId + " twice");
            assertFalse(text(pom, "name").isBlank(), dir + ": no <name>");
            assertFalse(text(pom, "description").isBlank(), dir + ": no <description>");
            if (BOM.equals(artifactId))
            {
                assertEquals(GROUP_ID, text(pom, "groupId"));
                assertEquals(version, text(pom, "version"), "the bom's version must move with the reactor");
                assertCentralMetadata(dir, pom);
                continue;
            }
            final Element parentRef = child(pom, "parent");
            assertNotNull(parentRef, dir + ": no parent");
            assertEquals("verbs4j-parent", text(parentRef, "artifactId"), dir);
            assertEquals(version, text(parentRef, "version"), dir);
            if (isJar(pom))
            {
                final String moduleName = property(pom, "verbs4j.moduleName");
                assertNotNull(moduleName, dir + ": no verbs4j.moduleName property (the jar's Automatic-Module-Name)");
                assertTrue(SourceVersion.isName(moduleName) && moduleName.startsWith("io.verbs4j."),
                    dir + ": not a module name: " + moduleName);
                final String other = moduleNames.put(moduleName, dir);
                assertTrue(null == other, moduleName + " is the module name of " + dir + " and " + other);
            }
        }
    }

    @Test
    void shouldListEveryPublishedModuleInTheBom()
    {
        final Element bom = MODULES.get("bom");
        final TreeSet<String> listed = new TreeSet<>();
        for (final Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"),
            "dependency"))
        {
            assertEquals(GROUP_ID, text(dependency, "groupId"));
            assertEquals("${project.version}", text(dependency, "version"));
            listed.add(text(dependency, "artifactId"));
        }
        final TreeSet<String> published = new TreeSet<>();
        for (final Element pom : MODULES.values())
        {
            if (isPublished(pom) && isJar(pom))
            {
                published.add(text(pom, "artifactId"));
            }
        }
        assertEquals(published, listed, "verbs4j-bom must list exactly the published jar modules");
    }

    @Test
    void shouldPutModuleNameLicenceAndNoticeInEveryJarOnTheClassPath() throws IOException
    {
        // The jars Maven put on this test's class path are the ones this reactor built (after `package`; after
        // `test` only they are target/classes directories, and there is no jar to check). Jars of modules outside
        // this module's dependencies (verbs4j-spark: ShadedJarContentsIT) are checked where they are built.
        final boolean release = Boolean.getBoolean("verbs4j.release.build");
        final Map<String, Element> byArtifactId = new TreeMap<>();
        final Map<String, String> dirOfArtifactId = new TreeMap<>();
        for (final Map.Entry<String, Element> entry : MODULES.entrySet())
        {
            byArtifactId.put(text(entry.getValue(), "artifactId"), entry.getValue());
            dirOfArtifactId.put(text(entry.getValue(), "artifactId"), entry.getKey());
        }
        final List<String> checked = new ArrayList<>();
        // Surefire runs tests through a manifest-only booter jar: its own property has the real class path
        final String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (final String entry : classPath.split(java.io.File.pathSeparator))
        {
            final Path jar = Path.of(entry);
            final String fileName = String.valueOf(jar.getFileName());
            if (!fileName.startsWith("verbs4j-") || !fileName.endsWith("-" + version + ".jar"))
            {
                continue;
            }
            final String artifactId = fileName.substring(0, fileName.length() - ("-" + version + ".jar").length());
            final Element pom = byArtifactId.get(artifactId);
            assertNotNull(pom, "a verbs4j jar of no module of this tree: " + jar);
            assertEquals(root.resolve(dirOfArtifactId.get(artifactId)).resolve("target").resolve(fileName),
                jar.toAbsolutePath().normalize(), "not this tree's jar");
            try (JarFile file = new JarFile(jar.toFile()))
            {
                final Manifest manifest = file.getManifest();
                assertNotNull(manifest, jar + ": no manifest");
                assertEquals(property(pom, "verbs4j.moduleName"),
                    manifest.getMainAttributes().getValue("Automatic-Module-Name"), jar.toString());
                assertNotNull(file.getEntry("META-INF/LICENSE"), jar + ": no META-INF/LICENSE");
                assertNotNull(file.getEntry("META-INF/NOTICE"), jar + ": no META-INF/NOTICE");
            }
            if (release)
            {
                for (final String classifier : List.of("sources", "javadoc"))
                {
                    final Path attached = jar.resolveSibling(artifactId + "-" + version + "-" + classifier + ".jar");
                    assertTrue(Files.isRegularFile(attached), "-Prelease built no " + attached);
                }
            }
            checked.add(artifactId);
        }
        assumeTrue(!checked.isEmpty(), "no verbs4j jar on the class path (run `verify`, not `test`)");
        assertTrue(checked.containsAll(List.of("verbs4j-core", "verbs4j-shm", "verbs4j-tcp", "verbs4j-collectives",
            "verbs4j-benchmarks")), "checked only " + checked);
    }

    private static void assertCentralMetadata(final String what, final Element pom)
    {
        assertEquals("https://github.com/verbs4j/verbs4j", text(pom, "url"), what + ": url");
        assertFalse(text(pom, "description").isBlank(), what + ": description");
        final Element licence = child(child(pom, "licenses"), "license");
        assertEquals("Apache-2.0", text(licence, "name"), what + ": licence");
        assertEquals("https://www.apache.org/licenses/LICENSE-2.0.txt", text(licence, "url"), what + ": licence url");
        final Element developer = child(child(pom, "developers"), "developer");
        assertFalse(text(developer, "name").isBlank(), what + ": developer name");
        final Element scm = child(pom, "scm");
        for (final String field : List.of("connection", "developerConnection", "url"))
        {
            assertFalse(text(scm, field).isBlank(), what + ": scm " + field);
        }
    }

    private static boolean isJar(final Element pom)
    {
        final String packaging = text(pom, "packaging");
        return packaging.isEmpty() || "jar".equals(packaging);
    }

    private static boolean isPublished(final Element pom)
    {
        return !"true".equals(property(pom, "maven.deploy.skip"));
    }

    private static String property(final Element pom, final String name)
    {
        final Element properties = child(pom, "properties");
        final Element value = null == properties ? null : child(properties, name);
        return null == value ? null : value.getTextContent().trim();
    }

    private static String profile(final Element pom, final String id)
    {
        for (final Element profile : children(child(pom, "profiles"), "profile"))
        {
            if (id.equals(text(profile, "id")))
            {
                return profile.getTextContent();
            }
        }
        throw new AssertionError("no profile " + id);
    }

    private static Element readPom(final Path pom) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        final Document document = factory.newDocumentBuilder().parse(pom.toFile());
        return document.getDocumentElement();
    }

    /** The first direct child element of that name, or null. */
    private static Element child(final Element parentElement, final String name)
    {
        if (null == parentElement)
        {
            return null;
        }
        final NodeList nodes = parentElement.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Node node = nodes.item(i);
            if (node instanceof Element && name.equals(node.getNodeName()))
            {
                return (Element)node;
            }
        }
        return null;
    }

    private static List<Element> children(final Element parentElement, final String name)
    {
        final List<Element> result = new ArrayList<>();
        if (null != parentElement)
        {
            final NodeList nodes = parentElement.getChildNodes();
            for (int i = 0; i < nodes.getLength(); i++)
            {
                final Node node = nodes.item(i);
                if (node instanceof Element && name.equals(node.getNodeName()))
                {
                    result.add((Element)node);
                }
            }
        }
        return result;
    }

    private static List<String> texts(final Element parentElement, final String name)
    {
        return children(parentElement, name).stream().map((e) -> e.getTextContent().trim())
            .collect(Collectors.toList());
    }

    /** The trimmed text of the first direct child of that name, or "" if there is none. */
    private static String text(final Element parentElement, final String name)
    {
        final Element element = child(parentElement, name);
        return null == element ? "" : element.getTextContent().trim();
    }
}
