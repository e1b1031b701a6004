import java.util.ArrayList;
import java.util.List;

public class Primes {
    static List<Integer> primesBelow(int limit) {
        List<Integer> primes = new ArrayList<>();
        for (int n = 2; n < limit; n++) {
            boolean prime = true;
            for (int p : primes) {
                if (p * p > n) break;
                if (n % p == 0) { prime = false; break; }
            }
            if (prime) primes.add(n);
        }
        return primes
    }

    public static void main(String[] args) {
        System.out.println(primesBelow(50));
    }
}
