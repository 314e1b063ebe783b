package io.verbs4j.collectives.smoke;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CyclicBarrier;

import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.Verbs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class ListenRaceTest
{
    @Test
    void listenersSurviveConcurrentDeviceOpens() throws Exception
    {
        for (int round = 0; round < 30; round++)
        {
            final CyclicBarrier barrier = new CyclicBarrier(3);
            final Device[] devices = new Device[3];
            final Listener[] listeners = new Listener[3];
            final Thread[] threads = new Thread[3];
            final int r = round;
            for (int i = 0; i < 3; i++)
            {
                final int id = i;
                threads[i] = new Thread(() ->
                {
                    try
                    {
                        barrier.await();
                        devices[id] = Verbs.open("shm");
                        listeners[id] = devices[id].connectionManager().listen("shm://race-" + ProcessHandle.current().pid() + "-" + r + "-" + id);
                    }
                    catch (final Exception ex)
                    {
                        throw new RuntimeException(ex);
                    }
                });
                threads[i].start();
            }
            for (final Thread t : threads)
            {
                t.join();
            }
            for (int i = 0; i < 3; i++)
            {
                final Path file = Path.of("/dev/shm/verbs4j-0-race-" + ProcessHandle.current().pid() + "-" + r + "-" + i + ".listen");
                assertTrue(Files.exists(file), "round " + r + " listener " + i + " vanished");
            }
            for (int i = 0; i < 3; i++)
            {
                listeners[i].close();
                devices[i].close();
            }
        }
    }
}
