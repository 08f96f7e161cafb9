// DynamoDB Local, bound to 127.0.0.1 only. Its own command line has no host option and Jetty
// then listens on every interface, so anyone who can reach the port could read the catalog
// (which holds the app-password hashes) without credentials. Same arguments as DynamoDBLocal.jar.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      // Fail closed: a connector we cannot bind to loopback must not start.
      if (!(connector instanceof ServerConnector)) throw new IllegalStateException("unexpected Jetty connector " + connector.getClass());
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
    // Our starter holds the other end of stdin: when it dies, even by kill -9, so do we, instead
    // of keeping the port and the catalog files of a folder that a new instance wants.
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {}
      } catch (java.io.IOException e) {
        // Same as end of input.
      }
      System.exit(0);
    }, "exit-with-parent");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
